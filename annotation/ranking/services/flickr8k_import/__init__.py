"""Import of the Flickr8k text release as released (Hodosh et al. 2013; docs/formats/flickr8k.md): captions,
splits, expert and CrowdFlower judgements, images by reference or with their files."""
from .importer import Flickr8kImport, import_flickr8k
from .release import Flickr8kImportError, Release, open_release

__all__ = ["Flickr8kImport", "Flickr8kImportError", "Release", "import_flickr8k", "open_release"]
