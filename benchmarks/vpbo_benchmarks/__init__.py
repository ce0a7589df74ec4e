"""The benchmark lab of optuna-vpbo (a distribution of its own: optuna-vpbo-benchmarks).

Problems (:mod:`.registry`, the one registry every family registers into: the paper's problems,
the broad suite, the fresh held-out set; the trial-states tasks in :mod:`.trial_states`), samplers
(:mod:`.samplers`: the pinned VPBO variants of :mod:`.vpbo_variants`, Optuna's samplers, the
paper's baselines, SMAC3 and the peers), the runner and the stored records, the reports and
figures, and the ``vpbo-benchmark`` command (:mod:`.cli`). It uses the sampler through public
names only (``optuna_vpbo`` and ``optuna_vpbo.gp``) and Optuna's private names only through
:mod:`.optuna_compat`.
"""
