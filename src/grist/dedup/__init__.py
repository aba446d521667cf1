"""Near-duplicate detection: fingerprints (simhash, modified simhash, MinHash), set and vector
similarities, a within-page dedup stage and a cross-page fingerprint index."""

from grist.dedup.index import FingerprintIndex
from grist.dedup.simhash import frequency_simhash, hamming, modified_simhash

__all__ = ["FingerprintIndex", "frequency_simhash", "hamming", "modified_simhash"]
