"""Human evaluation of systems' generated captions and stories: uploads of outputs for a known test set, designs
(absolute rating, pairwise preference) run as crowd campaigns, judgements, and the analysis of metrics.human_eval."""
