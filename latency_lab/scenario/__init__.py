"""Layer 1, the scenario: what the user asks for and what it means in numbers.

- :mod:`~latency_lab.scenario.schema`: the one scenario schema (:class:`~latency_lab.scenario.schema.Scenario`), its defaults
  and checks.
- :mod:`~latency_lab.scenario.params`: :func:`~latency_lab.scenario.params.resolve`, a validated scenario as the numbers
  (:class:`~latency_lab.scenario.params.Params`) the layers above compute with.
- :mod:`~latency_lab.scenario.overlay`: the one home of the rules that combine a base scenario (a preset) with given
  fields: the calculator, the API, the sweep and the command line all use it.
- :mod:`~latency_lab.scenario.profiles`: the TCP stacks' profiles (seed rules per implementation).
- :mod:`~latency_lab.scenario.content`: what content transforms do to the page's byte counts.
- :mod:`~latency_lab.scenario.limits`: the documented limits and the request's step budget.
- :mod:`~latency_lab.scenario.errors`: what each field allows, and problems that name the field and its allowed range.
- :mod:`~latency_lab.scenario.json_input`: strict JSON input, read the same way by every front end.

Imports nothing from the layers above (mechanisms, engine, protocols, analysis, studies).
"""
