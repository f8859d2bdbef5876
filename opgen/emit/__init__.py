"""Stage 5, emit: one module per target turns OpSpecs into (path, content) pairs."""
