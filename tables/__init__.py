"""Lifecycle tables as pure data: the reference executes them, the model proves over them,
and ``rescind diagram`` draws them. Nothing here imports reference, model or z3 code."""
