"""grist inside other pipelines (datatrove)."""
