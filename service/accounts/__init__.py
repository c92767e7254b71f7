"""Registered players: reserved names, player keys, each player's games and notices.

- :mod:`service.accounts.names`: the key a name is reserved under (case-insensitive,
  NFKC, UTS #39 confusable skeleton), so look-alike spellings collide.
- :mod:`service.accounts.store`: the accounts in Redis (register, resolve a player
  key, list a player's games).
"""
