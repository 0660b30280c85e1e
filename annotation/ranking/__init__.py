"""Ranking evaluation (Hodosh et al., image description as ranking): frozen test pools, systems' ranked submissions,
pooled relevance judgements by judge_caption campaigns or imported, the leaderboard and the Flickr8k export.
`registrations` registers its task kind, quality measure, export format and wizard sample with the crowd core."""
