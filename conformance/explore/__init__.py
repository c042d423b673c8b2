"""Differential exploration: the engine, the areas, sharding, parallel workers and the example
database."""
