"""aac.annotation"""
