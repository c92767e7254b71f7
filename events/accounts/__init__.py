"""Registered players in the store: the name key (confusable skeleton) and the key
schema of an account's Redis keys. The application side (register, resolve a player
key) is ``service.accounts``; the projector writes the notices (``events.projections.notices``)."""
