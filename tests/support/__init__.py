"""Helpers every integration and e2e test may reuse: Redis servers, key prefixes, clocks."""
