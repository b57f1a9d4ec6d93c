from django.contrib.auth.hashers import Argon2PasswordHasher


class QuickArgon2PasswordHasher(Argon2PasswordHasher):
    """Still Argon2 (argon2-cffi), with the smallest costs: the tests hash hundreds of
    passwords and the production parameters take ~0.1 s and 100 MB each."""

    time_cost = 1
    memory_cost = 8
    parallelism = 1
