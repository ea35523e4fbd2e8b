"""The MkDocs adapter: a thin plugin over trafikist's engine-free core."""
