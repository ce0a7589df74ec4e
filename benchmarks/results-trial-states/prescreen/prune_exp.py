import math, sys, os, numpy as np, optuna, warnings
from optuna_vpbo import VPBOSampler
optuna.logging.set_verbosity(optuna.logging.CRITICAL)
warnings.filterwarnings("ignore")
from sklearn.datasets import load_digits
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
X, y = load_digits(return_X_y=True)
X = StandardScaler().fit_transform(X)
Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.3, random_state=0)
classes = np.unique(y)
EPOCHS = 12
def objective(trial):
    loss = trial.suggest_categorical("loss", ["hinge", "log_loss", "modified_huber", "perceptron"])
    penalty = trial.suggest_categorical("penalty", ["l2", "l1", "elasticnet"])
    schedule = trial.suggest_categorical("learning_rate", ["constant", "optimal", "invscaling", "adaptive"])
    alpha = trial.suggest_float("alpha", 1e-6, 1e-1, log=True)
    eta0 = trial.suggest_float("eta0", 1e-4, 1.0, log=True)
    l1_ratio = trial.suggest_float("l1_ratio", 0.0, 1.0)
    clf = SGDClassifier(loss=loss, penalty=penalty, learning_rate=schedule, alpha=alpha, eta0=eta0, l1_ratio=l1_ratio, random_state=0)
    rng = np.random.default_rng(0)
    for epoch in range(EPOCHS):
        idx = rng.permutation(len(Xtr))
        clf.partial_fit(Xtr[idx], ytr[idx], classes=classes)
        err = 1.0 - clf.score(Xva, yva)
        trial.report(err, epoch)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return err
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
sampler, seeds, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bests, completes, reps = [], [], []
for seed in range(seeds):
    study = optuna.create_study(sampler=make(sampler, seed), pruner=optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=3))
    study.optimize(objective, n_trials=n)
    bests.append(study.best_value); completes.append(sum(t.state.name == "COMPLETE" for t in study.trials))
    seen=set(); r=0
    for t in study.trials:
        k=tuple(sorted((a, round(b,4) if isinstance(b,float) else b) for a,b in t.params.items()))
        if k in seen: r+=1
        if t.state.name=="PRUNED": seen.add(k)
    reps.append(r)
print(f"sgd {sampler:6s} {os.environ.get('TAG','')} best mean {np.mean(bests):.4f} +- {np.std(bests)/math.sqrt(seeds):.4f} p90 {np.quantile(bests,0.9):.4f} complete {np.mean(completes):.1f} repeats {sum(reps)}")
