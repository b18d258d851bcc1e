"""Layer 1, the scenario: what the user asks for and what it means in numbers.

- :mod:`~model.scenario.schema`: the one scenario schema (:class:`Scenario`), its defaults and checks, and
  :func:`~model.scenario.schema.resolve` to the primitive parameters (:class:`Params`) the layers above use.
- :mod:`~model.scenario.profiles`: the TCP stacks' profiles (seed rules per implementation).
- :mod:`~model.scenario.content`: what content transforms do to the page's byte counts.
- :mod:`~model.scenario.limits`: the documented limits and the request's step budget.
- :mod:`~model.scenario.errors`: strict input parsing and problems that name the field and its allowed range.

Imports nothing from the layers above (mechanisms, engine, protocols, analysis, studies).
"""
