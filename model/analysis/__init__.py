"""Layer 5, the analysis: what a schedule means.

- :mod:`~model.analysis.predict`: scenario in, the output document out (the model's seam).
- :mod:`~model.analysis.critical_path`: the page load time walked back into its causes.
- :mod:`~model.analysis.symbolic`: the same time as a sympy expression, with its glossary.
- :mod:`~model.analysis.expected_loss`: the expected cost of random loss, in closed form;
  :mod:`~model.analysis.loss_expression`, the same as a sympy expression.
- :mod:`~model.analysis.sweep`: one field over a range of values.
- :mod:`~model.analysis.tables`: predictions as CSV rows.

Imports only the layers below (scenario, mechanisms, engine, protocols).
"""
