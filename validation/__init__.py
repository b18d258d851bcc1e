"""Validation of the model against a packet-level simulator (ns-3): issues 3 and 7 (TLS, DNS).

``validation.sim`` runs a model scenario through ns-3 and returns the model's output fields as
ns-3 measured them; ``validation.compare`` puts both side by side; ``python -m validation
compare SCENARIO.json`` prints the comparison. ns-3 is an optional dependency
(``requirements-validation.txt``); the model and the app never import this package.
"""
