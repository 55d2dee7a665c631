"""aac.hub"""
