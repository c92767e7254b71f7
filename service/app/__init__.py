"""The application layer: one path for every command, whoever sends it.

HTTP handlers, RQ bot jobs and the CLI all call :class:`service.app.application.Application`;
it loads a game's table, asks the engine to decide, appends the events, then
notifies (projection feed, bot queue).
"""
