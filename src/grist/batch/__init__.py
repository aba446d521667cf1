"""Batch extraction at crawl scale: shards, the worker every executor runs, the local process
pool, the Ray executor, resume markers, and near-duplicates across a whole run."""
