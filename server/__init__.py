"""komasync server."""
