"""What the tests share, apart from pytest's fixtures (tests/conftest.py).

- helpers.py: the password every test user has, making users, logging in, posting.
- throttled_urls.py, slow_redis/: what single test modules need.

Servers, ports and stream clients, which the benchmarks use too, are in socialsite_dev/.
"""
