"""Layer 1, the scenario: what the user asks for and what it means in numbers.

- :mod:`~model.scenario.schema`: the one scenario schema (:class:`~model.scenario.schema.Scenario`), its defaults
  and checks.
- :mod:`~model.scenario.params`: :func:`~model.scenario.params.resolve`, a validated scenario as the numbers
  (:class:`~model.scenario.params.Params`) the layers above compute with.
- :mod:`~model.scenario.overlay`: the one home of the rules that combine a base scenario (a preset) with given
  fields: the calculator, the API, the sweep and the command line all use it.
- :mod:`~model.scenario.profiles`: the TCP stacks' profiles (seed rules per implementation).
- :mod:`~model.scenario.content`: what content transforms do to the page's byte counts.
- :mod:`~model.scenario.limits`: the documented limits and the request's step budget.
- :mod:`~model.scenario.errors`: what each field allows, and problems that name the field and its allowed range.
- :mod:`~model.scenario.json_input`: strict JSON input, read the same way by every front end.

Imports nothing from the layers above (mechanisms, engine, protocols, analysis, studies).
"""
