"""RQ and background entry points: bot turns, the sweeper, the projector. They call the
same application layer as HTTP does; never a second path."""
