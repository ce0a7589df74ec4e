import math, sys, os, numpy as np, optuna
from optuna_vpbo import VPBOSampler
optuna.logging.set_verbosity(optuna.logging.CRITICAL)
import warnings; warnings.filterwarnings("ignore")

def edge(trial):  # optimum at x=0.6 boundary of NaN region x>0.6
    x = trial.suggest_float("x", 0.0, 1.0); y = trial.suggest_float("y", 0.0, 1.0)
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    if x > 0.6: return float("nan")
    return (x - 0.6) ** 2 + (y - 0.4) ** 2 + {"a": 0.0, "b": 0.05, "c": 0.2}[c]

def combos(trial):
    s = trial.suggest_categorical("solver", ["s1", "s2", "s3", "s4", "s5", "s6"])
    p = trial.suggest_categorical("penalty", ["l1", "l2", "en", "none"])
    C = trial.suggest_float("C", 1e-3, 1e3, log=True)
    bad = {("s1","l1"),("s1","en"),("s2","l1"),("s2","en"),("s3","en"),("s4","en"),("s5","l1"),("s5","en"),("s6","none"),("s3","none")}
    if (s, p) in bad: raise ValueError("bad pair")
    base = {"s1":0.1,"s2":0.12,"s3":0.05,"s4":0.08,"s5":0.11,"s6":0.03}[s] + {"l1":0.02,"l2":0.0,"en":0.01,"none":0.05}[p]
    return base + 0.05 * (math.log10(C) - 0.5) ** 2

def region(trial):  # crash in a band of a numeric range
    x = trial.suggest_float("x", -5, 5); y = trial.suggest_float("y", -5, 5)
    if 0.5 < x < 2.5: raise RuntimeError("crash")
    return (x - 0.3) ** 2 + 0.5 * (y + 1) ** 2

PROBS = {"edge": (edge, 0.0), "combos": (combos, 0.03 + 0.0), "region": (region, 0.0)}
def make(name, seed):
    if name.startswith("vpbo"):
        import dataclasses
        from optuna_vpbo._pipeline import TrialPipeline
        s = VPBOSampler(seed=seed)
        if ":" in name:
            kv = dict(p.split("=") for p in name.split(":")[1].split("+"))
            s._settings = dataclasses.replace(s._settings, **kv)
            s._pipeline = TrialPipeline(s._settings)
        return s
    if name == "tpe": return optuna.samplers.TPESampler(seed=seed)
    if name == "random": return optuna.samplers.RandomSampler(seed=seed)
    if name == "gp": return optuna.samplers.GPSampler(seed=seed)
prob, sampler, seeds, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
f, opt = PROBS[prob]
fails, regrets, reps = [], [], []
for seed in range(seeds):
    study = optuna.create_study(sampler=make(sampler, seed))
    study.optimize(f, n_trials=n, catch=(ValueError, RuntimeError))
    after = study.trials[10:]
    fails.append(sum(t.state.name == "FAIL" for t in after) / len(after))
    regrets.append(study.best_value - opt)
    seen=set(); r=0
    for t in study.trials:
        k=tuple(sorted((a, round(b,4) if isinstance(b,float) else b) for a,b in t.params.items()))
        if k in seen: r+=1
        if t.state.name=="FAIL": seen.add(k)
    reps.append(r)
print(f"{prob:8s} {sampler:8s} {os.environ.get('VPBO_EXP_FAILED_WORST','-')} fail-share {np.mean(fails):.2f} regret mean {np.mean(regrets):.4f} p90 {np.quantile(regrets,0.9):.4f} repeats {sum(reps)}")
