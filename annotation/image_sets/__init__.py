"""Image sets (collections): every import lands in a named set with tags; the wizard, the API and the CLI select
images by set, tag, name and state through one selector (selectors.select_images)."""
