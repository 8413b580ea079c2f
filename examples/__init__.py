"""komasync examples."""
