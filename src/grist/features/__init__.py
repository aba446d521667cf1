"""Block features: shallow text, density, TTR/ATTR/TKD, position, DOM context."""
