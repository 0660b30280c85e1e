from django.apps import AppConfig


class StoryboardConfig(AppConfig):
    name = "storyboard"
    verbose_name = "Visual stories"
