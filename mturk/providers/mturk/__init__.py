"""Amazon Mechanical Turk through boto3 (see provider.py)."""
