"""Writers of the grounded-descriptions dataset in standard layouts (ImageCLEF-style, COCO, Flickr30k Entities)."""
