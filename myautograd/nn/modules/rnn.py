"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their one-step cells, built on existing ops.

Parameters are named, shaped, ordered and initialised as torch's: per layer and direction
``weight_ih_l{k}[_reverse]`` ``(gates * hidden, input)``, ``weight_hh_l{k}`` ``(gates * hidden,
hidden)``, the two biases, and ``weight_hr_l{k}`` for a projected LSTM; every one drawn from
``U(-1/sqrt(hidden), 1/sqrt(hidden))`` in that order, so a seeded model starts from torch's
weights.

The computation follows torch's CPU kernels: the input's contribution to the gates is computed
for the whole sequence at once, then each step adds the hidden state's (``linear_hh(h) +
igates``); the gates are chunked in torch's order (LSTM: input, forget, cell, output; GRU: reset,
update, new) and a GRU step is ``(h - n) * z + n``. Outputs are stacked over time (reversed
directions run back to front), directions concatenated, layers fed one into the next with
dropout in between when training. Known differences: torch's float32 LSTM runs in oneDNN and
records ``MkldnnRnnLayerBackward0`` where myautograd records the stack; torch transposes a
batch-first RNN/GRU output in place (``TransposeBackward1``) where myautograd records
``TransposeBackward0``; packed sequences are not supported.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ... import _dtype
from ..._ops.creation import empty, zeros
from ..._ops.shape import cat, stack
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
PROJ_ONLY_LSTM = "proj_size argument is only supported for LSTM, not RNN or GRU"
PROJECTION_WARNING = "LSTM with projections is not supported with oneDNN. Using default implementation."
_projection_warned = [False]  # torch warns once per process, on its float32 CPU path


# -- one step of each kind: ``igates`` is the input's contribution, already computed --------------------------
def _simple_step(activation):
    def step(igates, state, weights):
        return (activation(F.linear(state[0], weights["hh"], weights.get("b_hh")) + igates),)

    return step


def _lstm_step(igates, state, weights):
    h, c = state
    gates = F.linear(h, weights["hh"], weights.get("b_hh")) + igates
    in_gate, forget_gate, cell_gate, out_gate = gates.chunk(4, 1)
    c = forget_gate.sigmoid() * c + in_gate.sigmoid() * cell_gate.tanh()
    h = out_gate.sigmoid() * c.tanh()
    if "hr" in weights:
        h = h.matmul(weights["hr"].t())
    return h, c


def _gru_step(igates, state, weights):
    h = state[0]
    input_reset, input_update, input_new = igates.chunk(3, 1)
    hidden_reset, hidden_update, hidden_new = F.linear(h, weights["hh"], weights.get("b_hh")).chunk(3, 1)
    reset = (hidden_reset + input_reset).sigmoid()
    update = (hidden_update + input_update).sigmoid()
    new = (input_new + hidden_new * reset).tanh()
    return ((h - new) * update + new,)


STEPS = {"RNN_TANH": _simple_step(F.tanh), "RNN_RELU": _simple_step(F.relu), "LSTM": _lstm_step, "GRU": _gru_step}


def _check_sizes(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size) -> None:
    if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn(f"dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                      f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}", stacklevel=4)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if kind is int and value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters, their checks, and the layer loop."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_sizes(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        if mode not in GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = GATES[mode] * hidden_size
        out_size = proj_size or hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(self._directions):
                layer_input = input_size if layer == 0 else out_size * self._directions
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, out_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for stem, shape in shapes:
                    name = f"{stem}_l{layer}{'_reverse' if direction else ''}"
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names += names
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self) -> None:
        """Nothing to do: the weights are used where they are."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        shown = [("proj_size", self.proj_size != 0), ("num_layers", self.num_layers != 1),
                 ("bias", self.bias is not True), ("batch_first", self.batch_first is not False),
                 ("dropout", self.dropout != 0), ("bidirectional", self.bidirectional is not False)]
        return text + "".join(f", {name}={getattr(self, name)}" for name, show in shown if show)

    # -- checks ---------------------------------------------------------------------------------------------------
    def check_input(self, input, batch_sizes=None) -> None:
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). Convert "
                             f"input: input.to({weight_dtype}), or convert model: model.to({input.dtype})")
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes=None) -> tuple[int, int, int]:
        batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * self._directions, batch, self.proj_size or self.hidden_size)

    def check_hidden_size(self, hx, expected: tuple, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != expected:
            raise RuntimeError(msg.format(expected, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    # -- running --------------------------------------------------------------------------------------------------
    def _prepare(self, input, hx, kind: str):
        """``(input, hx, batched)``: the input made batched, and hx checked and made batched."""
        if input.dim() not in (2, 3):
            noun = "tensor instead" if kind == "RNN" else "instead"
            raise ValueError(f"{kind}: Expected input to be 2D or 3D, got {input.dim()}D {noun}")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        if hx is not None:
            if hx.dim() != (3 if batched else 2):
                shape = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(f"For {shape} input, hx should also be {3 if batched else 2}-D but got "
                                   f"{hx.dim()}-D tensor")
            if not batched:
                hx = hx.unsqueeze(1)
        return input, hx, batched

    def _zeros(self, input, size: int):
        batch = input.size(0) if self.batch_first else input.size(1)
        return zeros(self.num_layers * self._directions, batch, size, dtype=input.dtype, device=input.device)

    def _layers(self, input, states: tuple):
        """Run every layer and direction over ``input`` (time first); ``states`` holds the initial
        hidden (and cell) states, one row per layer and direction. Returns the last layer's output
        and the final states, stacked as ``states``."""
        step = STEPS[self.mode]
        finals: list[list] = [[] for _ in states]
        layer_input = input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self._directions):
                index = layer * self._directions + direction
                weights = self._weights(self._all_weights[index])
                igates = F.linear(layer_input, weights["ih"], weights.get("b_ih"))
                state = tuple(s[index] for s in states)
                per_step = [None] * igates.size(0)
                times = range(igates.size(0) - 1, -1, -1) if direction else range(igates.size(0))
                gate_rows = igates.unbind(0)
                for t in times:
                    state = step(gate_rows[t], state, weights)
                    per_step[t] = state[0]
                outputs.append(stack(per_step, 0))
                for collected, value in zip(finals, state, strict=True):
                    collected.append(value)
            layer_input = outputs[0] if len(outputs) == 1 else cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, tuple(stack(collected, 0) for collected in finals)

    def _weights(self, names: list[str]) -> dict:
        keys = {"weight_ih": "ih", "weight_hh": "hh", "bias_ih": "b_ih", "bias_hh": "b_hh", "weight_hr": "hr"}
        return {keys[name.split("_l")[0]]: getattr(self, name) for name in names}

    def _run(self, input, states: tuple, batched: bool):
        if self.batch_first:
            input = input.transpose(0, 1)
        output, finals = self._layers(input, states)
        if self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            finals = tuple(final.squeeze(1) for final in finals)
        return output, finals


class RNN(RNNBase):
    """An Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError(PROJ_ONLY_LSTM)
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, "RNN")
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx)
        output, (hidden,) = self._run(input, (hx,), batched)
        return output, hidden


class GRU(RNNBase):
    """A gated recurrent unit: reset, update and new gates per step."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError(PROJ_ONLY_LSTM)
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, "GRU")
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx)
        output, (hidden,) = self._run(input, (hx,), batched)
        return output, hidden


class LSTM(RNNBase):
    """Long short-term memory: returns ``output, (h_n, c_n)``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes=None) -> tuple[int, int, int]:
        batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * self._directions, batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def forward(self, input, hx=None):
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        if hx is None:
            hx = (self._zeros(input, self.proj_size or self.hidden_size), self._zeros(input, self.hidden_size))
        else:
            wanted = 3 if batched else 2
            if hx[0].dim() != wanted or hx[1].dim() != wanted:
                shape = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(f"For {shape} input, hx and cx should also be {wanted}-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx)
        if self.proj_size and input.dtype is _dtype.float32 and input.device.type == "cpu" \
                and not _projection_warned[0]:
            _projection_warned[0] = True
            warnings.warn(PROJECTION_WARNING, UserWarning, stacklevel=2)
        output, (hidden, cell) = self._run(input, tuple(hx), batched)
        return output, (hidden, cell)


# -- cells ------------------------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """One step of a recurrent layer, for loops written by hand."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _weights(self) -> dict:
        weights = {"hh": self.weight_hh}
        if self.bias_hh is not None:
            weights["b_hh"] = self.bias_hh
        return weights

    def _call(self, kind: str, step, input, state: tuple | None, state_names: tuple[str, ...]):
        if input.dim() not in (1, 2):
            raise ValueError(f"{kind}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if state is not None:
            for name, value in zip(state_names, state, strict=True):
                if value.dim() not in (1, 2):
                    raise ValueError(f"{kind}: Expected {name} to be 1D or 2D, got {value.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if state is None:
            blank = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            state = (blank,) * len(state_names)
        elif not batched:
            state = tuple(value.unsqueeze(0) for value in state)
        igates = F.linear(input, self.weight_ih, self.bias_ih)
        result = step(igates, state, self._weights())
        return result if batched else tuple(value.squeeze(0) for value in result)


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        step = STEPS["RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"]
        return self._call("RNNCell", step, input, None if hx is None else (hx,), ("hidden",))[0]


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._call("LSTMCell", _lstm_step, input, None if hx is None else tuple(hx), ("hx[0]", "hx[1]"))


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._call("GRUCell", _gru_step, input, None if hx is None else (hx,), ("hidden",))[0]


__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]
