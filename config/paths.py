"""Where the project and its local state live (no Django: the key file tool reads it too)."""
from pathlib import Path

from .env import env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
