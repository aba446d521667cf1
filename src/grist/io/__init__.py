"""Where pages come from and where results go: sources, sinks, datasets with gold text, fetching."""
