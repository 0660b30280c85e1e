"""HTML for the reports and the console, no Django: the page shell (page.py) and inline SVG plots (plots.py)."""
