# ---
# title: Least-squares curve fit with torch.optim.LBFGS and a closure, with and without the strong Wolfe line search
# style: the torch.optim documentation's "optimizer.step(closure)" example and LBFGS curve-fitting notebooks
# ---
"""Fit y = a + b x + c x^2 + d sin(3x) (its features made with NumPy) with nn.Linear; the loss after every step."""

import numpy as np
import torch

rng = np.random.default_rng(21)
x_np = np.linspace(-2, 2, 120)
features_np = np.stack([x_np, x_np ** 2, np.sin(3 * x_np)], axis=1).astype(np.float32)
y_np = (0.5 - 1.2 * x_np + 0.3 * x_np ** 2 + 0.8 * np.sin(3 * x_np) + 0.05 * rng.standard_normal(120)).astype(np.float32)
features = torch.from_numpy(features_np)
y = torch.from_numpy(y_np).unsqueeze(1)


def fit(line_search_fn, steps):
    model = torch.nn.Linear(3, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[0.1, -0.1, 0.2]]))
        model.bias.fill_(0.0)
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=4, history_size=3, line_search_fn=line_search_fn)
    evaluations = 0

    def closure():
        nonlocal evaluations
        evaluations += 1
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(features), y)
        loss.backward()
        return loss

    print(f"-- line_search_fn={line_search_fn!r}")
    for step in range(steps):
        loss = optimizer.step(closure)
        print(f"step {step}  loss {loss.item():.6f}  evaluations so far {evaluations}")
    state = optimizer.state[model.weight]
    print("n_iter", state["n_iter"], "func_evals", state["func_evals"], "stored pairs", len(state["old_dirs"]))
    print("fitted weight", model.weight.data, "bias", model.bias.data)
    return optimizer


fit(None, 5)
optimizer = fit("strong_wolfe", 5)
print(optimizer)
