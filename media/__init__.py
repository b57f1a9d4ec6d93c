"""Pictures: checking and re-encoding uploaded images (images.py), keeping their files
through Django's storage API (files.py), serving them where the proxy does not
(views.py), and the avatars shown beside people (avatars.py).

Image bytes live in the storage backend, never in Redis; the repository keeps only
their metadata (storage names, sizes) with the account (socialsite/repository/profiles.py).
"""
