"""komasync engine."""
