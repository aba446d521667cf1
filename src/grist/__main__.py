"""``python -m grist`` runs the command line."""

import sys

from grist.cli import main

sys.exit(main())
