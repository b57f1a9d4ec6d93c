"""What the tests (tests/) and the benchmarks (benchmarks/) both need, owned by neither:
neither imports the other, and the product (socialsite, accounts, timeline, moderation)
imports nothing from here (pyproject.toml's import contracts).

- ports.py: a free port on the loopback interface.
- redis_servers.py: throwaway redis-server processes, one server or a Redis Cluster.
- streams.py: a ``manage.py stream`` server in a child process, and a raw HTTP client
  that reads its streams as the bytes arrive.
- hashers.py: Argon2 with the smallest costs, for the many passwords tests hash.
"""
