# Human evaluation's models, moved here from the annotation app (its 0018 and 0019 made them): state only, the
# tables keep their names (Meta.db_table) and their rows; annotation's 0020 removed the models from its state.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('annotation', '0020_move_human_evaluation'),
        ('mturk', '0015_gold_item_scope'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='EvaluatedSystem',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200)),
                        ('role', models.CharField(choices=[('system', 'System'), ('reference', 'Human reference'), ('attention', 'Attention check (corrupted)')], default='system', max_length=20)),
                        ('file_name', models.CharField(blank=True, max_length=300)),
                        ('automatic', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'annotation_evaluatedsystem',
                        'ordering': ['evaluation_id', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='AutomaticScoring',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='queued', max_length=10)),
                        ('error', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('handed_off_at', models.DateTimeField(blank=True, null=True)),
                        ('attempts', models.PositiveSmallIntegerField(default=0)),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                        ('system', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='scoring', to='evaluation.evaluatedsystem')),
                    ],
                    options={
                        'db_table': 'annotation_automaticscoring',
                        'ordering': ['-created_at', '-id'],
                        'abstract': False,
                    },
                ),
                migrations.CreateModel(
                    name='HumanEvaluation',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200, unique=True)),
                        ('output_kind', models.CharField(choices=[('caption', 'Captions of images'), ('story', 'Stories of photo sequences')], max_length=20)),
                        ('test_set', models.CharField(help_text='"<source>:<key>", e.g. "image_set:3" or "albums:test".', max_length=200)),
                        ('test_set_label', models.CharField(blank=True, max_length=300)),
                        ('design', models.CharField(choices=[('rating', 'Absolute rating (Likert)'), ('pairwise', 'Pairwise preference (with a tie)')], default='rating', max_length=20)),
                        ('aspects', models.JSONField(default=list, help_text='Names of the questions asked (aspects.py), first = overall.')),
                        ('judges', models.PositiveSmallIntegerField(default=3, help_text='Judgements of each output (rating) or of each pair of outputs of an item (pairwise).')),
                        ('include_reference', models.BooleanField(default=True, help_text='A human reference is judged as a system.')),
                        ('attention_rate', models.FloatField(default=0.1, help_text='Share of HITs that are attention checks (gold).')),
                        ('seed', models.CharField(default='human-eval', max_length=100)),
                        ('status', models.CharField(choices=[('draft', 'Collecting outputs'), ('launched', 'Launched')], default='draft', max_length=20)),
                        ('analysis', models.JSONField(blank=True, default=dict)),
                        ('analysed_judgements', models.PositiveIntegerField(default=0)),
                        ('analysed_at', models.DateTimeField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('campaign', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='human_evaluation', to='mturk.campaign')),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'annotation_humanevaluation',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='EvaluationItem',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=500)),
                        ('position', models.PositiveIntegerField()),
                        ('images', models.JSONField(default=list)),
                        ('references', models.JSONField(default=list)),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='items', to='evaluation.humanevaluation')),
                    ],
                    options={
                        'db_table': 'annotation_evaluationitem',
                        'ordering': ['evaluation_id', 'position'],
                    },
                ),
                migrations.AddField(
                    model_name='evaluatedsystem',
                    name='evaluation',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='systems', to='evaluation.humanevaluation'),
                ),
                migrations.CreateModel(
                    name='SystemOutput',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('text', models.TextField()),
                        ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='outputs', to='evaluation.evaluationitem')),
                        ('system', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='outputs', to='evaluation.evaluatedsystem')),
                    ],
                    options={
                        'db_table': 'annotation_systemoutput',
                        'ordering': ['item_id', 'system_id'],
                    },
                ),
                migrations.CreateModel(
                    name='HumanJudgement',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('aspect', models.CharField(max_length=40)),
                        ('value', models.PositiveSmallIntegerField(blank=True, null=True)),
                        ('position', models.PositiveSmallIntegerField(default=0)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('assignment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='human_judgements', to='mturk.assignment')),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='judgements', to='evaluation.humanevaluation')),
                        ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='judgements', to='evaluation.evaluationitem')),
                        ('worker', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='mturk.worker')),
                        ('other', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='evaluation.systemoutput')),
                        ('output', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='judgements', to='evaluation.systemoutput')),
                        ('preferred', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='evaluation.systemoutput')),
                    ],
                    options={
                        'db_table': 'annotation_humanjudgement',
                        'ordering': ['evaluation_id', 'id'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='evaluationitem',
                    constraint=models.UniqueConstraint(fields=('evaluation', 'name'), name='human_eval_item_once'),
                ),
                migrations.AddConstraint(
                    model_name='evaluationitem',
                    constraint=models.UniqueConstraint(fields=('evaluation', 'position'), name='human_eval_item_position_once'),
                ),
                migrations.AddConstraint(
                    model_name='evaluatedsystem',
                    constraint=models.UniqueConstraint(fields=('evaluation', 'name'), name='human_eval_system_once'),
                ),
                migrations.AddConstraint(
                    model_name='systemoutput',
                    constraint=models.UniqueConstraint(fields=('system', 'item'), name='human_eval_output_once'),
                ),
                migrations.AddConstraint(
                    model_name='humanjudgement',
                    constraint=models.UniqueConstraint(fields=('assignment', 'output', 'aspect'), name='human_judgement_once'),
                ),
            ],
            database_operations=[],
        ),
    ]
