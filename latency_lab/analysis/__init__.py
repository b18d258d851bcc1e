"""Layer 5, the analysis: what a schedule means.

- :mod:`~latency_lab.analysis.predict`: scenario in, the output document out (the model's seam).
- :mod:`~latency_lab.analysis.critical_path`: the page load time walked back into its causes.
- :mod:`~latency_lab.analysis.symbolic`: the same time as a sympy expression, with its glossary.
- :mod:`~latency_lab.analysis.expected_loss`: the expected cost of random loss, in closed form;
  :mod:`~latency_lab.analysis.loss_expression`, the same as a sympy expression.
- :mod:`~latency_lab.analysis.sweep`: one field over a range of values.
- :mod:`~latency_lab.analysis.tables`: predictions as CSV rows.

Imports only the layers below (scenario, mechanisms, engine, protocols).
"""
