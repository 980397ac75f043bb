ssh h "cat > /f << 'EOF'
$1
