package dev.stowage.samples;
