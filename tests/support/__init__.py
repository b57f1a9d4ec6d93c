"""What the tests share, apart from pytest's fixtures (tests/conftest.py).

- helpers.py: the password every test user has, making users, logging in, posting.
- ports.py: a free port on the loopback interface.
- redis_servers.py: throwaway redis-server processes, one server or a Redis Cluster.
- streams.py: a ``manage.py stream`` server in a child process, and a raw HTTP client
  that reads its streams as the bytes arrive.

The benchmarks (benchmarks/) use redis_servers, streams and ports too. Nothing of the
product imports from here.
"""
