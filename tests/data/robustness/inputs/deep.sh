ssh a 'ssh b '\''bash -c "pkill -f x; cat > /f << 'EOF'
\$1
EOF
"'\'''
