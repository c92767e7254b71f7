"""``python -m service.cli ...`` = ``tabletop ...`` (how ``tabletop up`` starts its children)."""

import sys

from service.cli import main

sys.exit(main())
