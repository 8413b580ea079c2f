"""komasync adapters."""
