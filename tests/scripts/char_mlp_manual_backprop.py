# ---
# title: A character-level MLP whose gradients are derived by hand and checked against autograd
# style: the makemore "becoming a backprop ninja" lecture: a tiny name model, every intermediate kept with retain_grad
# drift: ^(loss|step)\b
# ---
"""Predict the next character of a name from the three before it, then backpropagate by hand."""

import numpy as np
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper", "evelyn",
         "abigail", "emily", "ella", "elizabeth", "camila", "luna", "sofia", "avery", "mila", "aria"]
chars = sorted(set("".join(words)))
stoi = {ch: i + 1 for i, ch in enumerate(chars)}
stoi["."] = 0
itos = {i: ch for ch, i in stoi.items()}
vocab_size = len(stoi)
block_size = 3
print("vocabulary:", vocab_size, "characters:", "".join(itos[i] for i in range(vocab_size)))

inputs, targets = [], []
for word in words:
    context = [0] * block_size
    for ch in word + ".":
        inputs.append(context)
        targets.append(stoi[ch])
        context = context[1:] + [stoi[ch]]
X = torch.tensor(inputs)
Y = torch.tensor(targets)
print("examples:", X.shape, Y.shape, X.dtype)

rng = np.random.default_rng(42)
n_embd, n_hidden = 5, 32
C = torch.tensor(rng.standard_normal((vocab_size, n_embd)), dtype=torch.float32)
W1 = torch.tensor(rng.standard_normal((n_embd * block_size, n_hidden)) * 0.3, dtype=torch.float32)
b1 = torch.tensor(rng.standard_normal(n_hidden) * 0.1, dtype=torch.float32)
W2 = torch.tensor(rng.standard_normal((n_hidden, vocab_size)) * 0.1, dtype=torch.float32)
b2 = torch.tensor(rng.standard_normal(vocab_size) * 0.1, dtype=torch.float32)
bngain = torch.tensor(1 + 0.1 * rng.standard_normal((1, n_hidden)), dtype=torch.float32)
bnbias = torch.tensor(0.1 * rng.standard_normal((1, n_hidden)), dtype=torch.float32)
parameters = [C, W1, b1, W2, b2, bngain, bnbias]
for p in parameters:
    p.requires_grad = True
print("parameters:", sum(p.nelement() for p in parameters))


def cmp(name, manual, tensor):
    close = torch.allclose(manual, tensor.grad, atol=1e-6)
    small = (manual - tensor.grad).abs().max().item() < 1e-6
    print(f"{name:15s} | approximate: {str(close):5s} | maxdiff below 1e-6: {small}")


batch = torch.tensor(np.arange(0, len(X), 2))
Xb, Yb = X[batch], Y[batch]
n = Xb.shape[0]

# forward pass, chunked into steps small enough to differentiate by hand
emb = C[Xb]
embcat = emb.view(emb.shape[0], -1)
hprebn = embcat @ W1 + b1
bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
bndiff = hprebn - bnmeani
bndiff2 = bndiff ** 2
bnvar = 1 / (n - 1) * bndiff2.sum(0, keepdim=True)
bnvar_inv = (bnvar + 1e-5) ** -0.5
bnraw = bndiff * bnvar_inv
hpreact = bngain * bnraw + bnbias
h = torch.tanh(hpreact)
logits = h @ W2 + b2
logit_maxes = logits.max(1, keepdim=True).values
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(1, keepdims=True)
counts_sum_inv = counts_sum ** -1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[range(n), Yb].mean()

for p in parameters:
    p.grad = None
intermediates = [logprobs, probs, counts, counts_sum, counts_sum_inv, norm_logits, logit_maxes, logits, h, hpreact,
                 bnraw, bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani, embcat, emb]
for t in intermediates:
    t.retain_grad()
loss.backward()
print(f"loss {loss.item():.6f}  cross_entropy {F.cross_entropy(logits, Yb).item():.6f}")
print("grad_fn of loss:", loss.grad_fn, "of probs:", type(probs.grad_fn).__name__)

# backward pass by hand
rows = torch.arange(n)
dlogprobs = torch.zeros_like(logprobs)
dlogprobs[rows, Yb] = -1.0 / n
dprobs = (1.0 / probs) * dlogprobs
dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
dcounts = counts_sum_inv * dprobs
dcounts_sum = (-counts_sum ** -2) * dcounts_sum_inv
dcounts += torch.ones_like(counts) * dcounts_sum
dnorm_logits = counts * dcounts
dlogits = dnorm_logits.clone()
dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
dlogits += (logits == logit_maxes).float() * dlogit_maxes  # the max picks one entry per row
dh = dlogits @ W2.T
dW2 = h.T @ dlogits
db2 = dlogits.sum(0)
dhpreact = (1.0 - h ** 2) * dh
dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
dbnraw = bngain * dhpreact
dbnbias = dhpreact.sum(0, keepdim=True)
dbndiff = bnvar_inv * dbnraw
dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
dbnvar = (-0.5 * (bnvar + 1e-5) ** -1.5) * dbnvar_inv
dbndiff2 = (1.0 / (n - 1)) * torch.ones_like(bndiff2) * dbnvar
dbndiff += (2 * bndiff) * dbndiff2
dhprebn = dbndiff.clone()
dbnmeani = (-dbndiff).sum(0)
dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)
dembcat = dhprebn @ W1.T
dW1 = embcat.T @ dhprebn
db1 = dhprebn.sum(0)
demb = dembcat.view(emb.shape)
dC = torch.zeros_like(C)
for k in range(Xb.shape[0]):
    for j in range(Xb.shape[1]):
        dC[Xb[k, j]] += demb[k, j]

for name, manual, tensor in [("logprobs", dlogprobs, logprobs), ("probs", dprobs, probs),
                             ("counts_sum_inv", dcounts_sum_inv, counts_sum_inv), ("counts_sum", dcounts_sum, counts_sum),
                             ("counts", dcounts, counts), ("norm_logits", dnorm_logits, norm_logits),
                             ("logit_maxes", dlogit_maxes, logit_maxes), ("logits", dlogits, logits), ("h", dh, h),
                             ("W2", dW2, W2), ("b2", db2, b2), ("hpreact", dhpreact, hpreact),
                             ("bngain", dbngain, bngain), ("bnbias", dbnbias, bnbias), ("bnraw", dbnraw, bnraw),
                             ("bnvar_inv", dbnvar_inv, bnvar_inv), ("bnvar", dbnvar, bnvar), ("bndiff2", dbndiff2, bndiff2),
                             ("bndiff", dbndiff, bndiff), ("bnmeani", dbnmeani, bnmeani), ("hprebn", dhprebn, hprebn),
                             ("embcat", dembcat, embcat), ("emb", demb, emb), ("W1", dW1, W1), ("b1", db1, b1),
                             ("C", dC, C)]:
    cmp(name, manual, tensor)

# the softmax and cross-entropy backward in one expression
dlogits_fast = F.softmax(logits, 1)
dlogits_fast[rows, Yb] -= 1
dlogits_fast /= n
cmp("logits (fast)", dlogits_fast, logits)

# a few steps of training with the hand-derived gradients of the fused loss
with torch.no_grad():
    for step in range(5):
        emb = C[Xb]
        hpre = emb.view(n, -1) @ W1 + b1
        h = torch.tanh(hpre)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Yb)
        dlogits = F.softmax(logits, 1)
        dlogits[rows, Yb] -= 1
        dlogits /= n
        dh = dlogits @ W2.T
        dhpre = (1.0 - h ** 2) * dh
        grads = {W2: h.T @ dlogits, b2: dlogits.sum(0), W1: emb.view(n, -1).T @ dhpre, b1: dhpre.sum(0)}
        for p, g in grads.items():
            p -= 0.5 * g
        print(f"step {step}  loss {loss.item():.5f}")
