"""saga"""
