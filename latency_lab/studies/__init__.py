"""Layer 6, the studies: the seed papers' setups as presets and their experiments reproduced.

Imports only the layers below.
"""
