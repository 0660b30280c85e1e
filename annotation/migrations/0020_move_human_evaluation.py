# Human evaluation moved to its own app (evaluation). Its models leave this app's state only: the tables stay,
# under their names, and evaluation's 0001_initial takes them over (state only too).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0019_human_eval_scoring'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='HumanJudgement'),
                migrations.DeleteModel(name='SystemOutput'),
                migrations.DeleteModel(name='AutomaticScoring'),
                migrations.DeleteModel(name='EvaluatedSystem'),
                migrations.DeleteModel(name='EvaluationItem'),
                migrations.DeleteModel(name='HumanEvaluation'),
            ],
            database_operations=[],
        ),
    ]
