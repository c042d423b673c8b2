"""Refinement: snapshots of a reference worker or host, abstracted into model states, and the
check that a reference step is an allowed path of model actions."""
