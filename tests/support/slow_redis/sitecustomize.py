"""A slowed Redis link for worker processes started by the fault tests.

Put this folder on PYTHONPATH and set SOCIALSITE_TEST_REDIS_DELAY_MS: Python imports
this module at start-up, and every command or pipeline redis-py sends then waits that
long first, as over a slow network. Jobs then last long enough for a kill to land in
the middle of one. Test-only: nothing in the product reads this variable.
"""

import os
import time

_delay = int(os.environ.get("SOCIALSITE_TEST_REDIS_DELAY_MS", "0")) / 1000

if _delay:
    from redis.connection import AbstractConnection

    _send = AbstractConnection.send_packed_command

    def _slow_send(self, command, check_health=True):
        time.sleep(_delay)
        return _send(self, command, check_health)

    AbstractConnection.send_packed_command = _slow_send
