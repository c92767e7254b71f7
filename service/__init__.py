"""The application layer, the HTTP API and the ``tabletop`` command line."""
