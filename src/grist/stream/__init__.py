"""Pages arriving over the network: fetching, feeds, URL normalisation and the URL Tree."""
