"""Running the service's processes: embedded Redis, gunicorn, the supervisor of ``tabletop up``."""
