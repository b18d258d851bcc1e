"""latency-lab's model: closed-form page-load latency for HTTP over TCP, with the reasons why.

Public API (everything else is internal):

- :class:`Scenario` — the one scenario schema (pydantic).
- :func:`predict` — scenario in, output document (a dict) out.
- :func:`expression` — the sympy expression of a protocol's page load time for a scenario.
- :data:`PRESETS`, :func:`preset` — the seeds' setups.
- :data:`GLOSSARY` — the symbols used in expressions.
"""

from model.predict import expression, predict
from model.presets import PRESETS, preset
from model.scenario import ALL_PROTOCOLS, SEED_PROTOCOLS, Scenario
from model.symbolic import GLOSSARY

__all__ = ["ALL_PROTOCOLS", "GLOSSARY", "PRESETS", "SEED_PROTOCOLS", "Scenario", "expression", "predict", "preset"]
