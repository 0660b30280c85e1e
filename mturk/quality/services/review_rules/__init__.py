"""Review rules: plan (dry run) and apply a campaign's QualityRule, with an audit of every decision.

A rule decides per worker, from their stored WorkerScore: a worker's submitted work is rejected only when a
reject bound is broken, approved only when every approve bound that is set holds, and left to a person
otherwise. A gold bound counts only once the worker has min_gold_items scored gold answers, an agreement
bound only once min_items of their items were compared with another worker's. The top bonus_top_share of the
workers whose work is (or is about to be) approved get one bonus each per campaign.

Applying stores each decision (QualityDecision, state "planned", unique key) before its marketplace call and
marks it done or failed after: a decision already done is never made twice, and a decision a person made
meanwhile is left as it is.

The package: rule.py (fields, checks, saving), planning.py (plan_rule, the dry run), applying.py (apply_rule and
the periodic job)."""
